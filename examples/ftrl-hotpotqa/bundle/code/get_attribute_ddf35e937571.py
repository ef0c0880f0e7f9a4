ANSWERS = {"step 1.2 of \"Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?\"":"no"}

def get_attribute_ddf35e937571(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
