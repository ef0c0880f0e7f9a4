ANSWERS = {"step 1.2 of \"The Vermont Catamounts men's soccer team currently competes in a conference that was formerly known as what from 1988 to 1996?\"":"the North Atlantic Conference"}

def get_attribute_c5375692d6f0(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
